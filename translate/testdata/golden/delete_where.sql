DELETE FROM Tasks WHERE Status = 'Done'
