"""Starting a Python program by forking a warm copy of it (the fake app-server's starts):
`server.py` is the warm process, `client.py` the harness's side of it."""
