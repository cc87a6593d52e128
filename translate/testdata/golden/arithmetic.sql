SELECT Name, Priority * 2 + Estimate AS weight FROM Tasks WHERE Priority / Estimate > 1
