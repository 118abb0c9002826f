//! Where a mouse click lands, from the same layout the screen is drawn with: a strategy tab,
//! a pool of the live view, or a line of the fault menu. (The wheel scrolls the log wherever
//! it turns.)

use ratatui::layout::Rect;

use crate::scenario::Strategy;
use crate::tui::app::{Action, App, Overlay};

/// What the pointer hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Tab(Strategy),
    Pool(crate::topology::PoolId),
    /// Line n (from 1) of the fault menu.
    MenuLine(usize),
    Nothing,
}

/// The target at (`column`, `row`) of a `width` x `height` screen.
pub fn target(app: &App, width: u16, height: u16, column: u16, row: u16) -> Target {
    let area = Rect::new(0, 0, width, height);
    match app.overlay() {
        Overlay::Faults(menu) => {
            let items = match menu.service {
                None => app.source().scenario().services.len(),
                Some(_) => crate::tui::app::FAULTS.len(),
            };
            let rows = u16::try_from(items + 1).unwrap_or(u16::MAX);
            let menu_box = super::centred(area, super::fault_menu::WIDTH, rows + 2);
            return menu_line(menu_box, column, row, items);
        }
        Overlay::None => {}
        _ => return Target::Nothing,
    }
    if row == 0 {
        return super::header::tab_at(app, width, column).map_or(Target::Nothing, Target::Tab);
    }
    if app.compare_engines().is_some() || app.timeline_lane().is_some() {
        return Target::Nothing;
    }
    let snapshot = app.snapshot();
    let [_, body, _] = super::screen_areas(area, !app.badges(&snapshot).is_empty());
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

/// The action a left click on `target` asks for.
pub fn click(target: Target) -> Option<Action> {
    match target {
        Target::Tab(s) => Some(Action::SelectStrategy(s)),
        Target::Pool(pool) => Some(Action::SelectPool(pool)),
        Target::MenuLine(n) => Some(Action::MenuPick(n)),
        Target::Nothing => None,
    }
}
