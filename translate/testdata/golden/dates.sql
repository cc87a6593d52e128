SELECT Name, YEAR(Due), MONTH(`Updated At`) FROM Tasks WHERE Due >= '2024-01-01' AND `Updated At` < NOW() AND YEAR(Due) = 2024
