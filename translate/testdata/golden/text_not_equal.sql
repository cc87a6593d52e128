SELECT Name FROM Tasks WHERE Name <> 'a'
