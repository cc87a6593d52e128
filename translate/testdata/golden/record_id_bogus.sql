SELECT Name FROM Tasks WHERE id = 'not a record id'
