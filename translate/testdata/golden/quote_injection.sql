-- args: ["x') OR TRUE() OR ('"]
SELECT Name FROM Tasks WHERE Name = ?
