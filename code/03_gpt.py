"""From one head to a GPT: every rung of Part IV's ladder, one preset each
(``--help`` lists them and shows the commands; ``python -m selfattn.ladder`` is this script too)."""

from selfattn.ladder import main

if __name__ == "__main__":
    main()
