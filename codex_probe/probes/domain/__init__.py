"""What is probed and how it is read: the assumptions, their readings, the view of a
recorded run they are read on."""
