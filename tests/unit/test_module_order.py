"""support.module_order: the order make test runs its modules in (tests/conftest.py)."""
from support.module_order import module_order

MODULES = {"integration/test_grading.py": "graded-classes", "integration/test_hub_isolation.py": "hub",
           "integration/test_hub.py": "hub", "integration/test_hub_secrets.py": "hub",
           "integration/test_book.py": None, "unit/test_masks.py": None, "integration/test_redteam.py": "graded-classes",
           "unit/test_grader.py": None}


def test_do_the_shared_groups_go_first_and_the_hub_walk_lead_its_group():
    for seed in range(1, 30):
        order = module_order(MODULES, seed)
        assert sorted(order) == sorted(MODULES)
        shared = [path for path in order if MODULES[path]]
        assert order[:len(shared)] == shared, (seed, order)
        assert order[0] == "integration/test_hub.py", (seed, order)


def test_do_the_other_integration_modules_go_before_the_unit_tier():
    """A module of one slow integration test never waits behind the unit tier, whose tests fill both workers' ends?"""
    for seed in range(1, 30):
        order = module_order(MODULES, seed)
        assert [path.split("/")[0] for path in order[-3:]] == ["integration", "unit", "unit"], (seed, order)


def test_does_the_seed_still_vary_the_order_within_each_tier():
    orders = {tuple(module_order(MODULES, seed)) for seed in range(1, 30)}
    assert len({order[1:5] for order in orders}) > 1 and len({order[5:] for order in orders}) > 1
    assert module_order(MODULES, 3) == module_order(MODULES, 3)


def test_does_seed_0_keep_the_order_given():
    assert module_order(MODULES, 0) == list(MODULES)
