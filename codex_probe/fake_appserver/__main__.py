import sys

from codex_probe.fake_appserver.cli import main

sys.exit(main())
