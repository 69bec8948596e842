// Small progressive enhancements; every page works without this file.
// The language selector submits itself when changed, so its button can stay hidden for mouse users.
document.addEventListener("change", (event) => {
  const select = event.target.closest(".lang-switch select");
  if (select) select.form.requestSubmit();
});
