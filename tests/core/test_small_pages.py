"""``osutil.small_pages``: numpy's huge-page advice off inside, restored after, also when
the block raises (issue 41: a CLI closure's fresh arrays)."""

from __future__ import annotations

import pytest

from osutil.small_pages import _switch, small_pages


def test_the_advice_is_off_inside_and_restored_after():
    switch = _switch()
    if switch is None:
        pytest.skip("this numpy has no huge-page switch")
    for start in (True, False):
        switch(start)
        with small_pages():
            assert switch(False) is False  # off inside (reading it sets it off again)
        assert switch(start) is start
        with pytest.raises(RuntimeError), small_pages():
            raise RuntimeError("inside")
        assert switch(start) is start
    switch(True)
