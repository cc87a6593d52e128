SELECT * FROM Tasks JOIN People ON Tasks.Owner = People.id
