SELECT Tags FROM Tasks WHERE Tags = '["x"]'
