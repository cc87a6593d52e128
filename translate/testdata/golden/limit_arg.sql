-- args: [5]
SELECT Name FROM Tasks WHERE Status = 'Todo' LIMIT ?
