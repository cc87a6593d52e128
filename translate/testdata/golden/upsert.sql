INSERT INTO People (Name, Email, Age) VALUES ('Ann', 'a@x.org', 30) ON DUPLICATE KEY UPDATE Email = VALUES(Email), Age = VALUES(Age)
