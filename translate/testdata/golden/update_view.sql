UPDATE Tasks USE INDEX (`Open`) SET Done = TRUE WHERE Priority > 3
