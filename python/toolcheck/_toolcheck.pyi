"""Type stubs for the Rust extension module (``toolcheck._toolcheck``)."""

from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

__version__: str

class FixError(Exception): ...

class Options:
    def __init__(
        self,
        input_format: Optional[str] = None,
        tools: Sequence[str] = ...,
        targets: Sequence[str] = ...,
        select: Sequence[str] = ...,
        ignore: Sequence[str] = ...,
        unpaired: Optional[str] = None,
    ) -> None: ...

def lint_text(options: Options, data: Union[str, bytes], name: str) -> List[Dict[str, Any]]: ...
def plain_json(obj: Any) -> Optional[bytes]: ...
def lint_plain(options: Options, obj: Any, name: str) -> Optional[List[Dict[str, Any]]]: ...
def clean_plain(options: Options, obj: Any, name: str, provider: Optional[str], everything: bool) -> bool: ...
def lint_many(
    options: Options, records: Iterable[Union[str, bytes]], name: str, threads: Optional[int] = None
) -> List[List[Dict[str, Any]]]: ...
def lint_paths(
    options: Options, paths: List[str], threads: Optional[int] = None
) -> List[Dict[str, Any]]: ...
def lint_arrow_capsules(
    options: Options, schema: Any, array: Any, name: str, threads: Optional[int] = None
) -> List[List[Dict[str, Any]]]: ...
def fix_text(
    options: Options, data: Union[str, bytes], name: str, unsafe_fixes: bool = False
) -> Tuple[str, bool, int, int, List[Dict[str, Any]]]: ...
def fix_many(
    options: Options,
    records: Sequence[Optional[Union[str, bytes]]],
    name: str,
    unsafe_fixes: bool = False,
    threads: Optional[int] = None,
) -> List[Tuple[Optional[str], int, int, List[Dict[str, Any]], List[Dict[str, Any]], Optional[str]]]: ...
def run_cli(argv: List[str]) -> int: ...
