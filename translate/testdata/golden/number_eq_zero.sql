SELECT Name FROM Tasks WHERE Priority = 0
