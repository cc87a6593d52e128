INSERT INTO People (Email, Name, Age) VALUES ('a@x.org', 'Ann', 30) ON DUPLICATE KEY UPDATE Name = VALUES(Name), Age = VALUES(Age)
