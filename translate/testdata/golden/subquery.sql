SELECT Name FROM Tasks WHERE Priority IN (SELECT Age FROM People)
