"""Identity: accounts and passwords, the per-sender throttle, address
confirmation, consent policies, and players' secret reply addresses.

Stands on ``mail`` (it sends confirmations and invitations), ``store`` and
``core``.
"""
