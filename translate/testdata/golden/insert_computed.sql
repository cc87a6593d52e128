INSERT INTO Tasks (Name, Score) VALUES ('a', 1)
