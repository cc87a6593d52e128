SELECT Name FROM Tasks WHERE Name LIKE 'a\_%' AND Notes NOT LIKE '%50\%%'
