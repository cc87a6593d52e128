SELECT Name FROM Tasks WHERE Name < 'm'
