SELECT Name FROM Tasks WHERE Status IN ('Todo', 'Done') AND Priority NOT IN (1, 2)
