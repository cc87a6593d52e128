SELECT `a}b}c` FROM Tasks WHERE `a}b}c` = 'x'
