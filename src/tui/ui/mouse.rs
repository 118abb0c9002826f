//! Where a mouse click lands, from the same layout the screen is drawn with: a strategy tab,
//! a pool of the live view, or a line of the fault menu (on a value line, its `◂` or `▸`
//! steps the value). (The wheel scrolls the log wherever it turns.)

use ratatui::layout::Rect;

use crate::scenario::Strategy;
use crate::tui::app::{Action, App, Overlay};
use crate::tui::fault_form::FormLine;

/// What the pointer hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Tab(Strategy),
    Pool(crate::topology::PoolId),
    /// Line n (from 1) of the fault menu.
    MenuLine(usize),
    /// The `▸` (true) or `◂` of the fault menu's line n (from 1).
    MenuArrow(usize, bool),
    Nothing,
}

/// The target at (`column`, `row`) of a `width` x `height` screen.
pub fn target(app: &App, width: u16, height: u16, column: u16, row: u16) -> Target {
    let area = Rect::new(0, 0, width, height);
    match app.overlay() {
        Overlay::Faults(menu) => {
            let services = app.source().scenario().services.len();
            let items = match menu.service {
                None => services + 1,
                Some(_) => FormLine::LINES.len(),
            };
            let rows = super::fault_menu::rows(menu, services);
            let menu_box = super::centred(area, super::fault_menu::WIDTH, rows);
            let target = menu_line(menu_box, column, row, items);
            return match target {
                Target::MenuLine(n) if menu.service.is_some() => arrow(menu_box, column, n),
                other => other,
            };
        }
        Overlay::None => {}
        _ => return Target::Nothing,
    }
    if row == 0 {
        return super::header::tab_at(app, width, column).map_or(Target::Nothing, Target::Tab);
    }
    if app.headline() || app.compare_engines().is_some() || app.timeline_lane().is_some() {
        return Target::Nothing;
    }
    let snapshot = app.snapshot();
    let [_, body, _] = super::screen_areas(area, app, !app.badges(&snapshot).is_empty());
    let pools = super::live_areas(app, body).pools;
    let inside = (pools.x..pools.x + pools.width).contains(&column)
        && (pools.y..pools.y + pools.height).contains(&row);
    if !inside {
        return Target::Nothing;
    }
    super::pools::pool_at(app, &snapshot, pools, row).map_or(Target::Nothing, Target::Pool)
}

fn menu_line(menu_box: Rect, column: u16, row: u16, items: usize) -> Target {
    let inside = column > menu_box.x
        && column < menu_box.x + menu_box.width.saturating_sub(1)
        && row > menu_box.y;
    let line = usize::from(row.saturating_sub(menu_box.y + 1));
    if inside && line < items {
        Target::MenuLine(line + 1)
    } else {
        Target::Nothing
    }
}

/// On line `n` of the fault form: its `◂` or `▸` when the click is on one (a column either
/// side of it counts), else the line.
fn arrow(menu_box: Rect, column: u16, n: usize) -> Target {
    use super::fault_menu::{LESS_COLUMN, MORE_COLUMN};
    let inner = column.saturating_sub(menu_box.x + 1);
    let adjustable = FormLine::at(n - 1).adjustable();
    if adjustable && inner.abs_diff(LESS_COLUMN) <= 1 {
        Target::MenuArrow(n, false)
    } else if adjustable && inner + 1 >= MORE_COLUMN {
        Target::MenuArrow(n, true)
    } else {
        Target::MenuLine(n)
    }
}

/// The action a left click on `target` asks for.
pub fn click(target: Target) -> Option<Action> {
    match target {
        Target::Tab(s) => Some(Action::SelectStrategy(s)),
        Target::Pool(pool) => Some(Action::SelectPool(pool)),
        Target::MenuLine(n) => Some(Action::MenuPick(n)),
        Target::MenuArrow(n, more) => Some(Action::MenuArrow(n, more)),
        Target::Nothing => None,
    }
}
