seed"
vkserve_release_handlea,b