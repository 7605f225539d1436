"""placeholder"""
TOP = 11
WEIGHTS = {(n, m): (1, 1, 7, 0.8, 0.3, 1, 0, 1, 0) for n in (2, 3, 4) for m in range(1, 12)}
