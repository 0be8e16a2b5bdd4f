// Input: mouse, touch and pen through pointer events, the wheel and the keys. A press on a cube
// and a drag along one of its lines is a stroke; a drag that starts on the background, with the
// middle button, with Alt or Ctrl held, or with two fingers turns the view (two fingers also
// zoom). What a gesture does to the game is `on`'s:
//   pick(x, y) → cube or -1; solved(); click(cube, marking, time);
//   startStroke(cube, marking, dx, dy) → false when the drag follows no line (it turns the view);
//   strokeTo(x, y, time); endStroke(); hover(x, y); render() (the view moved);
//   undo(); hint(); tool(name, colour); slice(axis, step); resetView(); k (the colours).
const STROKE_START = 6;   // pixels a press moves before it is a drag, not a click

export function bindInput(canvas, cam, on) {
  const view = cam.view;
  const pointers = new Map();
  let drag = null, pinch = null;
  canvas.addEventListener("contextmenu", (e) => e.preventDefault());
  canvas.addEventListener("pointerdown", (e) => {
    canvas.focus();
    canvas.setPointerCapture(e.pointerId);
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (pointers.size === 1) {
      const turn = e.button === 1 || e.altKey || e.ctrlKey || e.metaKey;
      const cube = on.solved() || turn ? -1 : on.pick(e.clientX, e.clientY);
      drag = { x: e.clientX, y: e.clientY, moved: false, cube, rotate: cube < 0, marking: e.button === 2 || e.shiftKey };
    } else if (pointers.size === 2) {
      // a second finger: a stroke in progress ends where it got to; the fingers turn and zoom
      on.endStroke();
      const [a, b] = [...pointers.values()];
      pinch = { d: Math.hypot(a.x - b.x, a.y - b.y), dist: view.dist, mx: (a.x + b.x) / 2, my: (a.y + b.y) / 2 };
      drag = null;
    }
  });
  canvas.addEventListener("pointermove", (e) => {
    const p = pointers.get(e.pointerId);
    if (!p) {
      if (e.pointerType === "mouse" && !on.solved()) on.hover(e.clientX, e.clientY);
      return;
    }
    const dx = e.clientX - p.x, dy = e.clientY - p.y;
    p.x = e.clientX; p.y = e.clientY;
    if (pinch && pointers.size >= 2) {
      const [a, b] = [...pointers.values()];
      const d = Math.hypot(a.x - b.x, a.y - b.y), mx = (a.x + b.x) / 2, my = (a.y + b.y) / 2;
      view.dist = cam.clampDist(pinch.dist * (pinch.d / Math.max(1, d)));
      cam.turn(mx - pinch.mx, my - pinch.my);
      pinch.mx = mx; pinch.my = my;
      on.render();
      return;
    }
    if (!drag) return;
    if (!drag.moved) {
      if (Math.hypot(e.clientX - drag.x, e.clientY - drag.y) < STROKE_START) return;
      drag.moved = true;
      if (!drag.rotate && !on.startStroke(drag.cube, drag.marking, e.clientX - drag.x, e.clientY - drag.y)) {
        drag.rotate = true;
      }
    }
    if (drag.rotate) { cam.turn(dx, dy); on.render(); return; }
    on.strokeTo(e.clientX, e.clientY, e.timeStamp);
  });
  function pointerEnd(e) {
    if (!pointers.has(e.pointerId)) return;
    pointers.delete(e.pointerId);
    if (pointers.size < 2) pinch = null;
    if (drag && !drag.moved && e.type === "pointerup" && pointers.size === 0 && drag.cube >= 0) {
      // a click or a tap: the pressed cube gets the tool's action
      on.click(drag.cube, drag.marking || e.shiftKey, e.timeStamp);
    }
    if (pointers.size === 0) { on.endStroke(); drag = null; }
  }
  canvas.addEventListener("pointerup", pointerEnd);
  canvas.addEventListener("pointercancel", pointerEnd);
  canvas.addEventListener("wheel", (e) => {
    e.preventDefault();
    view.dist = cam.clampDist(view.dist * Math.exp(e.deltaY * 0.0012));
    on.render();
  }, { passive: false });
  window.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement && e.key.startsWith("Arrow")) return;
    const k = e.key.toLowerCase();
    if ((e.ctrlKey || e.metaKey) && k === "z") { e.preventDefault(); on.undo(); return; }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "ArrowLeft") view.theta -= 0.12;
    else if (e.key === "ArrowRight") view.theta += 0.12;
    else if (e.key === "ArrowUp") view.phi = Math.max(0.05, view.phi - 0.12);
    else if (e.key === "ArrowDown") view.phi = Math.min(Math.PI - 0.05, view.phi + 0.12);
    else if (k === "+" || k === "=") view.dist = cam.clampDist(view.dist / 1.15);
    else if (k === "-" || k === "_") view.dist = cam.clampDist(view.dist * 1.15);
    else if (k === "u") { on.undo(); return; }
    else if (k === "h") { on.hint(); return; }
    else if (k === "b") { on.tool("break"); return; }
    else if (k === "m") { on.tool("mark"); return; }
    else if (on.k && k >= "1" && k <= String(on.k) && k.length === 1) { on.tool("paint", k.charCodeAt(0) - 48); return; }
    else if (k === "r") cam.reset();
    else if (k === "x" || k === "y" || k === "z") {
      if (on.solved()) return;
      on.slice("xyz".indexOf(k), e.shiftKey ? -1 : 1);
      return;
    } else return;
    e.preventDefault();
    on.render();
  });
}
