SELECT Name FROM Tasks USE INDEX (`Closed`)
