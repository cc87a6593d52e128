(SELECT Name FROM Tasks WHERE Priority = 1) UNION (SELECT Name FROM Tasks WHERE Priority = 5) ORDER BY Name;
# a comment first
WITH hi AS (SELECT Name, Priority FROM Tasks WHERE Priority >= 3) SELECT COUNT(*) FROM hi;
SELECT Name FROM Tasks UNION ALL SELECT Name FROM Tasks ORDER BY Name LIMIT 3;
