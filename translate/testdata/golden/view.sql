SELECT Name FROM Tasks USE INDEX (`Open`) WHERE Priority > 1
