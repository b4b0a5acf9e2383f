# Every JSON document a test parses is checked against schema/ (schemas.py).
from tests.e2e import schemas as _schemas

_schemas.install()
