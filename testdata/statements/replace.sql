REPLACE INTO Tasks (Name) VALUES ('a');
