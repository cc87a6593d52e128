DELETE Tasks, People FROM Tasks JOIN People
