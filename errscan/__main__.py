from errscan.cli import main

main()
