-- args: [2]
SELECT Name, Priority FROM Tasks WHERE Priority >= ? ORDER BY Priority DESC LIMIT 10
