INSERT INTO People (Email, Name) VALUES ('a@x.org', 'Ann') ON DUPLICATE KEY UPDATE Name = CONCAT(Name, 'x')
