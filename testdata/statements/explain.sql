EXPLAIN SELECT Name FROM Tasks WHERE Priority > 3 ORDER BY Name;
/* c */ EXPLAIN UPDATE Tasks SET Notes = 'x' WHERE Priority > 3;
EXPLAIN DELETE FROM Tasks WHERE Done;
EXPLAIN INSERT INTO Tasks (Name) VALUES ('a'), ('b');
