SELECT Name FROM Tasks ORDER BY Priority + 1
