UPDATE Tasks SET Notes = 'high' WHERE Priority > 3;
UPDATE Tasks SET Notes = 'in' WHERE Name IN (SELECT Name FROM Tasks WHERE Priority = 1);
SELECT Name, Notes FROM Tasks WHERE Notes IN ('high', 'in') ORDER BY Name;
UPDATE Tasks SET Done = TRUE ORDER BY Priority;
UPDATE Tasks SET Nope = 1;
