INSERT INTO Tasks (Name, Priority) VALUES ('golden 1', 9), ('golden 2', 8);
INSERT INTO Tasks (Name, Priority) VALUES ('golden 3', 7) RETURNING id, Name, Priority * 10 AS p;
INSERT INTO Tasks (Name, Priority) SELECT CONCAT(Name, ' copy'), Priority FROM Tasks WHERE Priority = 9;
SELECT Name, Priority FROM Tasks WHERE Name LIKE 'golden%' ORDER BY Name;
INSERT INTO Tasks (Name) VALUES ('r') RETURNING (SELECT COUNT(*) FROM Tasks);
INSERT IGNORE INTO Tasks (Name) VALUES ('x');
INSERT INTO Tasks (Nope) VALUES ('x');
