"""A client's contract: its own use of the protocol, recorded on one release (record.py,
through tap.py), written as contract.py says, and verified on another (verify.py)."""
