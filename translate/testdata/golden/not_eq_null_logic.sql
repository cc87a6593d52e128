SELECT Name FROM Tasks WHERE NOT (Name = 'a')
