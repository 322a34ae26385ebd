"""The main window's interactive tools, one class per file (see ``base.Tool``).

``MainWindow`` builds one of each, in this order (the first tool's dock is the one the
others are tabbed with). A new tool is one new file and one line here.
"""

from .analysis_tool import AnalysisTool
from .billboards_tool import BillboardsTool
from .edit_tool import EditTool
from .od_tool import ODTool
from .route_tool import RouteTool

TOOLS = (RouteTool, EditTool, BillboardsTool, ODTool, AnalysisTool)

__all__ = ["TOOLS", "AnalysisTool", "BillboardsTool", "EditTool", "ODTool", "RouteTool"]
