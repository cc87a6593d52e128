-- named: {"name": "Ann", "min": 2}
SELECT Name FROM Tasks WHERE Name = :name AND Priority > :min
