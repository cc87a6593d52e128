SELECT Name FROM Tasks WHERE Name LIKE 'ab%c_d' OR Notes NOT LIKE '%50\\%%'
