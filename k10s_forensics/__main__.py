from k10s_forensics.cli import main

main()
