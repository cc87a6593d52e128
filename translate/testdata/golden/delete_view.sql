DELETE Tasks FROM Tasks USE INDEX (`Open`) WHERE Done
