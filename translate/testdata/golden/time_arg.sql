-- args: [{"time": "2024-01-05T10:00:00+02:00"}]
SELECT Name FROM Tasks WHERE `Updated At` >= ? ORDER BY `Updated At`
