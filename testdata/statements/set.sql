SET @a = 41, @b = @a + 1;
SELECT @a, @b;
SET NAMES utf8mb4;
SET SESSION sql_mode = 'TRADITIONAL';
SELECT @@sql_mode;
SET time_zone = '+01:00';
SET GLOBAL sql_mode = '';
