SELECT Name FROM Tasks WHERE (Priority > 2) IS NOT TRUE
