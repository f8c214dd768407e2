from tabpilot.cli import main

raise SystemExit(main())
