import sys

from fake_appserver.cli import main

sys.exit(main())
