SELECT Name AS n, Seq FROM Tasks ORDER BY 2, n
