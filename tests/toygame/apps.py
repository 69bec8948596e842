from games import registry


class ToyGameConfig(registry.GameAppConfig):
    """A fourth game installed only by the test that proves a game is one folder."""

    name = "tests.toygame"
    label = "toygame"
    title = "Toy"
    summary = "Play your cards one by one; the higher total wins."
