CREATE TABLE Golden (Name varchar(100), N int);
ALTER TABLE Golden ADD COLUMN Note text;
DESCRIBE Golden;
CREATE TABLE Tasks (Name text);
DROP TABLE Golden;
