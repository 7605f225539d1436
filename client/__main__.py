"""`python -m client` runs the `governor` command."""
from .cli import main

raise SystemExit(main())
